import PostalMime from "postal-mime";
import { SMTPServer } from "smtp-server";

export interface Mail {
  to: string;
  from: string;
  subject: string;
  text: string;
}

/** A real SMTP server on loopback that parses every mail it receives (postal-mime) into `inbox`. */
export async function startSmtpServer(port: number, inbox: Mail[]): Promise<{ close(): Promise<void> }> {
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", async () => {
        const parsed = await PostalMime.parse(Buffer.concat(chunks));
        inbox.push({ to: parsed.to?.map((a) => a.address).join(",") ?? "", from: parsed.from?.address ?? "", subject: parsed.subject ?? "", text: parsed.text ?? "" });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return { close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
