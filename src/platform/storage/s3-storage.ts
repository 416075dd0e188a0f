import { PassThrough, type Readable } from "node:stream";
import { DeleteObjectsCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, S3Client, type S3ClientConfig } from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { byteLimit } from "../byte-limit.ts";
import { checkKey, StorageLimitError, StorageNotFoundError, type Storage } from "./storage.ts";

export interface S3Settings {
  endpoint?: string;
  bucket: string;
  region: string;
  accessKeyId?: string;
  secretAccessKey?: string;
}

/**
 * Objects in one bucket. Writes stream as multipart uploads (8 MiB parts, two in flight), so memory
 * stays flat whatever the size; an upload over its limit is aborted and leaves no object.
 */
export class S3Storage implements Storage {
  private readonly client: S3Client;

  constructor(private readonly s: S3Settings) {
    const config: S3ClientConfig = {
      region: s.region,
      endpoint: s.endpoint,
      // Path-style addressing for S3-compatible servers on a plain host:port.
      forcePathStyle: Boolean(s.endpoint),
      // Default checksums make some S3-compatible servers store streamed objects corrupted.
      requestChecksumCalculation: "WHEN_REQUIRED",
      responseChecksumValidation: "WHEN_REQUIRED",
    };
    if (s.accessKeyId && s.secretAccessKey) config.credentials = { accessKeyId: s.accessKeyId, secretAccessKey: s.secretAccessKey };
    this.client = new S3Client(config);
  }

  async put(key: string, body: Readable, opts: { maxBytes?: number } = {}): Promise<number> {
    checkKey(key);
    const max = opts.maxBytes ?? Number.POSITIVE_INFINITY;
    const tally = { bytes: 0 };
    const counted = new PassThrough();
    const counter = byteLimit(max, () => new StorageLimitError(max), tally);
    const upload = new Upload({ client: this.client, params: { Bucket: this.s.bucket, Key: key, Body: counted }, partSize: 8 * 1024 * 1024, queueSize: 2, leavePartsOnError: false });
    let failure: unknown = null;
    const fail = (err: unknown) => {
      failure = failure ?? err;
      counted.destroy(err as Error);
      void upload.abort().catch(() => undefined);
    };
    body.on("error", fail);
    counter.on("error", fail);
    body.pipe(counter).pipe(counted);
    try {
      await upload.done();
    } catch (err) {
      throw failure ?? err;
    }
    if (failure) throw failure;
    return tally.bytes;
  }

  async get(key: string): Promise<Readable> {
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.s.bucket, Key: checkKey(key) }));
      return out.Body as Readable;
    } catch (err) {
      if (notFound(err)) throw new StorageNotFoundError(key);
      throw err;
    }
  }

  async size(key: string): Promise<number | null> {
    try {
      const out = await this.client.send(new HeadObjectCommand({ Bucket: this.s.bucket, Key: checkKey(key) }));
      return out.ContentLength ?? 0;
    } catch (err) {
      if (notFound(err)) return null;
      throw err;
    }
  }

  async list(prefix: string): Promise<string[]> {
    const keys: string[] = [];
    let token: string | undefined;
    do {
      const out = await this.client.send(new ListObjectsV2Command({ Bucket: this.s.bucket, Prefix: `${checkKey(prefix)}/`, ContinuationToken: token }));
      for (const o of out.Contents ?? []) if (o.Key) keys.push(o.Key);
      token = out.IsTruncated ? out.NextContinuationToken : undefined;
    } while (token);
    return keys.sort();
  }

  async children(prefix: string): Promise<string[]> {
    const keys = new Set<string>();
    let token: string | undefined;
    do {
      const out = await this.client.send(new ListObjectsV2Command({ Bucket: this.s.bucket, Prefix: `${checkKey(prefix)}/`, Delimiter: "/", ContinuationToken: token }));
      for (const p of out.CommonPrefixes ?? []) if (p.Prefix) keys.add(p.Prefix.replace(/\/$/, ""));
      for (const o of out.Contents ?? []) if (o.Key) keys.add(o.Key);
      token = out.IsTruncated ? out.NextContinuationToken : undefined;
    } while (token);
    return [...keys].sort();
  }

  async deleteTree(key: string): Promise<void> {
    const keys = [checkKey(key), ...(await this.list(key))];
    for (let i = 0; i < keys.length; i += 1000) {
      await this.client.send(new DeleteObjectsCommand({ Bucket: this.s.bucket, Delete: { Objects: keys.slice(i, i + 1000).map((Key) => ({ Key })), Quiet: true } }));
    }
  }

  close(): void {
    this.client.destroy();
  }
}

function notFound(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === "NoSuchKey" || e.name === "NotFound" || e.$metadata?.httpStatusCode === 404;
}
