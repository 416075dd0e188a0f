import pino, { type DestinationStream, type Logger } from "pino";

/**
 * JSON logs to stdout. Redaction is a second line of defence: no code path should put a secret
 * into a log object in the first place. `destination` (tests only) receives the same lines instead
 * of stdout, so a test can read what the service logs with its real configuration.
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options: pino.LoggerOptions = {
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
        "*.authkey",
        "password",
        "token",
      ],
      censor: "[redacted]",
    },
  };
  return destination ? pino(options, destination) : pino(options);
}

export type { Logger };
