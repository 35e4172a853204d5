// Secrets scrubbed from each log line as written: whatever field, message or stack carries
// them (a URL `.../bot<token>/sendMessage` inside a network error, say).

const PLACEHOLDER = "[redacted]";

/** A bot token in a Bot API URL, even one the configuration does not name. */
const BOT_URL_TOKEN = /bot\d+:[\w-]+/g;

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

function percentDecoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * How a secret may appear in a serialized log line: as is and percent-decoded (a connection
 * URL's password is written encoded, and its driver uses it decoded), each also as JSON escapes
 * it.
 */
export function secretForms(secret: string): string[] {
  if (secret === "") return [];
  const forms = [secret, percentDecoded(secret)];
  return [...new Set(forms.flatMap((form) => [form, JSON.stringify(form).slice(1, -1)]))];
}

/** Replaces every form of each secret in a serialized log line. */
export function secretScrubber(secrets: readonly string[]): (line: string) => string {
  const forms = secrets
    .flatMap(secretForms)
    // The longest first: a secret that contains another is replaced whole.
    .sort((a, b) => b.length - a.length)
    .map(escaped);
  const known = forms.length > 0 ? new RegExp(forms.join("|"), "g") : undefined;
  return (line) => {
    const scrubbed = line.replace(BOT_URL_TOKEN, `bot${PLACEHOLDER}`);
    return known ? scrubbed.replace(known, PLACEHOLDER) : scrubbed;
  };
}
