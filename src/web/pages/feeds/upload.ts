import { session, problemText } from "../../lib/session.ts";

/** POST /feeds/upload's answer (spec 2.4). */
export interface FeedUploadAnswer {
  key: string;
  filename: string;
  size: number;
  source_format: string;
  members?: { events: number; hashes: boolean; unsafe_entries: string[] };
}

export class UploadError extends Error {}

/**
 * Uploads a feed file through the REST route with the session's token. XMLHttpRequest, because
 * fetch() reports no upload progress; `onProgress` gets the fraction sent (0..1).
 */
export async function uploadFeedFile(file: File, sourceFormat: string, onProgress: (fraction: number) => void): Promise<FeedUploadAnswer> {
  const token = await session.token();
  const form = new FormData();
  form.append("source_format", sourceFormat);
  form.append("file", file, file.name);
  const xhr = new XMLHttpRequest();
  const done = new Promise<FeedUploadAnswer>((resolve, reject) => {
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(e.loaded / e.total);
    };
    xhr.onerror = () => reject(new UploadError("The upload failed: the connection was lost"));
    xhr.onabort = () => reject(new UploadError("The upload was cancelled"));
    xhr.onload = () => {
      const res = new Response(xhr.responseText, { status: xhr.status, headers: { "content-type": xhr.getResponseHeader("content-type") ?? "" } });
      if (xhr.status === 401) session.expired();
      if (xhr.status >= 200 && xhr.status < 300) {
        onProgress(1);
        resolve(res.json() as Promise<FeedUploadAnswer>);
      } else {
        void problemText(res, "The upload was refused").then((m) => reject(new UploadError(m)));
      }
    };
  });
  xhr.open("POST", "/feeds/upload");
  if (token) xhr.setRequestHeader("authorization", `Bearer ${token}`);
  xhr.setRequestHeader("accept", "application/json");
  xhr.send(form);
  return done;
}
