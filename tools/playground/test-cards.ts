// The playground's test cards, as a payment provider's test mode has them: any well-formed
// card number pays, except the one that is always declined.

/** What the card does at checkout; "invalid": not a card number, nothing is sent to the bot. */
type CardOutcome = "paid" | "declined" | "invalid";

/** The page prefills the paying one and names the declined one. */
export const TEST_CARDS = { paying: "4242 4242 4242 4242", declined: "4000 0000 0000 0002" };

export function cardOutcome(cardNumber: string): CardOutcome {
  const digits = digitsOf(cardNumber);
  if (!/^\d{12,19}$/.test(digits) || !passesLuhn(digits)) return "invalid";
  return digits === digitsOf(TEST_CARDS.declined) ? "declined" : "paid";
}

/** A card number as typed, spaces and dashes left out. */
function digitsOf(cardNumber: string): string {
  return cardNumber.replace(/[\s-]/g, "");
}

/** The check digit every card number carries, so that a mistyped number is told at once. */
function passesLuhn(digits: string): boolean {
  let sum = 0;
  for (const [index, char] of [...digits].reverse().entries()) {
    const digit = Number(char);
    const doubled = index % 2 === 1 ? digit * 2 : digit;
    sum += doubled > 9 ? doubled - 9 : doubled;
  }
  return sum % 10 === 0;
}
