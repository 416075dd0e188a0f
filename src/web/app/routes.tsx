import { lazy, type ComponentType, type LazyExoticComponent } from "react";

export interface PageRoute {
  path: string;
  page: LazyExoticComponent<ComponentType>;
}

export interface NavEntry {
  to: string;
  label: string;
  /** Only administrators (role with users:* and the like) see it. */
  admin?: boolean;
}

/** Each page is its own chunk: the first route loads only what it shows. */
export const pageRoutes: PageRoute[] = [
  { path: "/explore", page: lazy(() => import("../pages/explore/ExplorePage.tsx")) },
  { path: "/events", page: lazy(() => import("../pages/events/EventsPage.tsx")) },
  { path: "/events/new", page: lazy(() => import("../pages/events/EventEditPage.tsx")) },
  { path: "/events/:uuid/edit", page: lazy(() => import("../pages/events/EventEditPage.tsx")) },
  { path: "/events/:uuid", page: lazy(() => import("../pages/events/EventPage.tsx")) },
  { path: "/hunts", page: lazy(() => import("../pages/hunts/HuntsPage.tsx")) },
  { path: "/hunts/new", page: lazy(() => import("../pages/hunts/HuntEditPage.tsx")) },
  { path: "/hunts/:id/edit", page: lazy(() => import("../pages/hunts/HuntEditPage.tsx")) },
  { path: "/hunts/:id", page: lazy(() => import("../pages/hunts/HuntPage.tsx")) },
  { path: "/notifications", page: lazy(() => import("../pages/notifications/NotificationsPage.tsx")) },
  { path: "/feeds", page: lazy(() => import("../pages/feeds/FeedsPage.tsx")) },
  { path: "/feeds/:id", page: lazy(() => import("../pages/feeds/FeedPage.tsx")) },
  { path: "/settings/*?", page: lazy(() => import("../pages/settings/SettingsPage.tsx")) },
  { path: "/admin/*?", page: lazy(() => import("../pages/admin/AdminPage.tsx")) },
  { path: "/assistants", page: lazy(() => import("../pages/assistants/AssistantsPage.tsx")) },
];

export const navEntries: NavEntry[] = [
  { to: "/explore", label: "Explore" },
  { to: "/events", label: "Events" },
  { to: "/hunts", label: "Hunts" },
  { to: "/notifications", label: "Notifications" },
  { to: "/feeds", label: "Feeds" },
  { to: "/settings", label: "Settings" },
  { to: "/assistants", label: "AI assistants" },
  { to: "/admin", label: "Administration", admin: true },
];
