import { authorizedFetch } from "./graphql-client.ts";
import { problemText } from "./session.ts";

export class DownloadError extends Error {}

/**
 * Downloads a file the API streams (the token goes in a header, so a plain link cannot fetch it):
 * the body is read as it arrives into a Blob, then saved through a temporary `<a download>`.
 * A 429 (the user's concurrent searches are busy) is retried after the Retry-After it names.
 * Answers the number of bytes saved.
 */
export async function downloadFile(url: string, filename: string): Promise<number> {
  let res = await authorizedFetch(url);
  // 429: the user's concurrent searches are busy (an export takes one); wait as told, a few times.
  for (let tries = 0; res.status === 429 && tries < 3; tries++) {
    const wait = Number(res.headers.get("retry-after") ?? 1);
    await new Promise((resolve) => setTimeout(resolve, (Number.isFinite(wait) ? wait : 1) * 1000));
    res = await authorizedFetch(url);
  }
  if (!res.ok || !res.body) throw new DownloadError(await problemText(res, "The download failed"));
  const reader = res.body.getReader();
  const parts: Uint8Array<ArrayBuffer>[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    size += value.byteLength;
  }
  const blob = new Blob(parts, { type: res.headers.get("content-type") ?? "application/octet-stream" });
  const href = URL.createObjectURL(blob);
  try {
    const a = document.createElement("a");
    a.href = href;
    a.download = filename;
    document.body.append(a);
    a.click();
    a.remove();
  } finally {
    // The click has handed the Blob to the browser's download; a moment later the URL can go.
    setTimeout(() => URL.revokeObjectURL(href), 10_000);
  }
  return size;
}
