import { hash, verify } from "@node-rs/argon2";

// argon2id with the library's defaults (19 MiB, t=2): OWASP's recommended minimum.
export function hashPassword(password: string): Promise<string> {
  return hash(password);
}

// Verifying against this when the user does not exist keeps the response time of an unknown
// e-mail equal to a wrong password, so e-mails cannot be enumerated by timing.
let dummyHash: Promise<string> | null = null;

export async function verifyPassword(storedHash: string | null, password: string): Promise<boolean> {
  if (!storedHash) {
    dummyHash ??= hash("not-a-real-password");
    await verify(await dummyHash, password).catch(() => false);
    return false;
  }
  return verify(storedHash, password).catch(() => false);
}
