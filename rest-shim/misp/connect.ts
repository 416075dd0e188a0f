import { hasScope } from "../../src/auth/principal.ts";
import { defineMispRoute } from "./misp-route.ts";
import { MispDescribeTypesSchema, MispUserViewSchema, MispVersionSchema, mispPermissions } from "./misp-shapes.ts";

/**
 * The MISP version this API speaks. PyMISP reads every dot-separated part as a number and warns when
 * `pymisp_recommended_version` is newer than itself: the PyMISP release the tests drive (2.5.34.1)
 * is the one recommended.
 */
export const MISP_API_VERSION = "2.5.34";

/** What PyMISP asks when it connects: the version, the caller and the attribute catalogue. */
export const mispConnectRoutes = [
  defineMispRoute({
    method: "GET", path: "/misp/servers/getVersion", operationId: "mispGetVersion", summary: "MISP servers/getVersion: the MISP version spoken and the caller's sync, sighting and galaxy-editor permissions",
    scopes: [], status: 200, response: MispVersionSchema, misp: { notFound: "Not Found" },
    handler: ({ principal }) => {
      const perms = mispPermissions(principal!);
      return {
        version: MISP_API_VERSION,
        pymisp_recommended_version: MISP_API_VERSION,
        perm_sync: perms.perm_sync,
        perm_sighting: perms.perm_sighting,
        perm_galaxy_editor: perms.perm_galaxy_editor,
        perm_analyst_data: perms.perm_analyst_data,
        // MISP names its own uuid to sync users only.
        uuid: "-",
        request_encoding: [],
        filter_sightings: true,
      };
    },
  }),
  defineMispRoute({
    method: "GET", path: "/misp/users/view/me", operationId: "mispViewMe", summary: "MISP users/view/me: the caller (User), their role with MISP's perm_* flags derived from their scopes (Role), settings (UserSetting) and organisation",
    scopes: ["users:me"], status: 200, response: MispUserViewSchema, misp: { notFound: "Invalid user" },
    handler: async ({ principal, services }) => {
      const p = principal!;
      const user = await services.users.me(p);
      const settings = hasScope(p, "user_settings:read") ? await services.settings.userSettings(p) : {};
      return {
        User: {
          id: String(user.id),
          email: user.email,
          org_id: String(user.orgId),
          role_id: String(user.roleId),
          disabled: user.disabled,
          autoalert: false,
          contactalert: false,
          termsaccepted: true,
          change_pw: false,
          date_created: String(Math.floor(user.createdAt.getTime() / 1000)),
          date_modified: String(Math.floor(user.updatedAt.getTime() / 1000)),
        },
        Role: { id: String(user.role.id), name: user.role.name, ...mispPermissions(p) },
        UserSetting: settings,
        Organisation: { id: String(user.organisation.id), uuid: user.organisation.uuid, name: user.organisation.name, local: user.organisation.local },
      };
    },
  }),
  defineMispRoute({
    method: "GET", path: "/misp/attributes/describeTypes.json", operationId: "mispDescribeTypes", summary: "MISP attributes/describeTypes.json: the attribute types and categories accepted, from the attribute catalogue",
    scopes: ["attributes:read"], status: 200, response: MispDescribeTypesSchema, misp: { notFound: "Not Found" },
    handler: ({ principal, services }) => {
      const c = services.attributes.catalogue(principal);
      return {
        result: {
          sane_defaults: Object.fromEntries(c.typeNames.map((t) => [t, { default_category: c.types.get(t)!.defaultCategory, to_ids: c.types.get(t)!.toIds ? (1 as const) : (0 as const) }])),
          types: [...c.typeNames],
          categories: [...c.categories],
          category_type_mappings: Object.fromEntries(c.categories.map((k) => [k, [...(c.categoryTypes.get(k) ?? [])]])),
        },
      };
    },
  }),
];
