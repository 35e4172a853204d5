// Secrets scrubbed from each log line as written: whatever field, message or stack carries
// them (a URL `.../bot<token>/sendMessage` inside a network error, say).

const PLACEHOLDER = "[redacted]";

/** A bot token in a Bot API URL, even one the configuration does not name. */
const BOT_URL_TOKEN = /bot\d+:[\w-]+/g;

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Replaces each secret, as is and as JSON escapes it, in a serialized log line. */
export function secretScrubber(secrets: readonly string[]): (line: string) => string {
  const forms = secrets
    .filter((secret) => secret !== "")
    .flatMap((secret) => [secret, JSON.stringify(secret).slice(1, -1)])
    // The longest first: a secret that contains another is replaced whole.
    .sort((a, b) => b.length - a.length)
    .map(escaped);
  const known = forms.length > 0 ? new RegExp(forms.join("|"), "g") : undefined;
  return (line) => {
    const scrubbed = line.replace(BOT_URL_TOKEN, `bot${PLACEHOLDER}`);
    return known ? scrubbed.replace(known, PLACEHOLDER) : scrubbed;
  };
}
