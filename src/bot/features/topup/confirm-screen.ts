// The confirm screen of one bouquet, however it is reached: picked from the journey's screens,
// or straight from a reminder's Renew or from an offer that changed under a purchase.
import type { MenuAction } from "../../session.js";
import type { Translate } from "../../shared/labels.js";
import type { ValueFormatter } from "../../shared/values.js";
import { intentIdOf, type Journey } from "./journey.js";
import { type ConfirmOptions, confirmView, type View } from "./views.js";

/** Selects the bouquet (Back leading to `back`) and draws its confirm screen. */
export function confirmScreen(
  journey: Journey,
  index: number,
  back: MenuAction,
  t: Translate,
  fmt: ValueFormatter,
  options: ConfirmOptions,
): View {
  journey.selected = { bouquet: index, intentId: intentIdOf(journey.id, index), back };
  return confirmView(journey, index, back, t, fmt, options);
}
