import { Tabs } from "@mantine/core";
import type { ReactNode } from "react";
import { useLocation } from "wouter";

export interface Section {
  /** The address segment after the page's base: /settings/<slug>. */
  slug: string;
  label: string;
  render(): ReactNode;
}

/**
 * A page's sections as tabs, each at its own address (`<base>/<slug>`), so a section can be linked to
 * and survives a reload; the bare base opens the first one.
 */
export function SectionTabs({ base, sections, label }: { base: string; sections: Section[]; label: string }) {
  const [location, navigate] = useLocation();
  const slug = location.slice(base.length + 1).split("/")[0];
  const current = sections.find((s) => s.slug === slug) ?? sections[0];
  return (
    <Tabs value={current.slug} onChange={(v) => v && navigate(`${base}/${v}`)} keepMounted={false}>
      <Tabs.List aria-label={label} style={{ flexWrap: "wrap" }}>
        {sections.map((s) => (
          <Tabs.Tab key={s.slug} value={s.slug}>
            {s.label}
          </Tabs.Tab>
        ))}
      </Tabs.List>
      {sections.map((s) => (
        <Tabs.Panel key={s.slug} value={s.slug} pt="md">
          {s.slug === current.slug && s.render()}
        </Tabs.Panel>
      ))}
    </Tabs>
  );
}
