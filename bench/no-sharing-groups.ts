import type { WriteOptions } from "../src/modules/events/event-writer.ts";

/**
 * The benches that call writeEventDraft directly write drafts that name no sharing group, so the
 * capture is never asked; if a bench's data ever names one it fails loudly instead of measuring
 * something else.
 */
export const NO_SHARING_GROUPS: WriteOptions["sharingGroups"] = {
  captureImported: () => Promise.reject(new Error("this bench's drafts are not expected to name sharing groups")),
};
