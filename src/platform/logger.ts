import pino, { type Logger } from "pino";

/**
 * JSON logs to stdout. Redaction is a second line of defence: no code path should put a secret
 * into a log object in the first place.
 */
export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: "workbench", pid: process.pid },
    redact: {
      paths: [
        "req.headers.authorization",
        "req.headers.cookie",
        "*.password",
        "*.token",
        "*.refresh_token",
        "*.access_token",
        "password",
        "token",
      ],
      censor: "[redacted]",
    },
  });
}

export type { Logger };
