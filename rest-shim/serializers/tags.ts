import type { TagRecord } from "../../src/modules/tags/tags.service.ts";

/** The peer's Tag fields. */
export function tagRecordOut(t: TagRecord) {
  return {
    id: t.id,
    name: t.name,
    colour: t.colour,
    exportable: t.exportable,
    org_id: t.orgId,
    user_id: t.userId,
    hide_tag: t.hideTag,
    numerical_value: t.numericalValue,
    is_galaxy: t.isGalaxy,
    is_custom_galaxy: t.isCustomGalaxy,
    local_only: t.localOnly,
  };
}
