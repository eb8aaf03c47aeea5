import fc from 'fast-check';
import { CHOICES } from '../../server/choices.ts';
import type { ChoiceId } from '../../server/choices.ts';
import { compatiblePrefix } from '../../server/choice-space.ts';

/** Every choice id of the catalogue, in its order. */
export const CHOICE_IDS: readonly ChoiceId[] = CHOICES.map((c) => c.id as ChoiceId);

/** A combination in the catalogue's order (how it is shown, stored and compared). */
export function inCatalogueOrder(ids: readonly ChoiceId[]): ChoiceId[] {
  const wanted = new Set(ids);
  return CHOICE_IDS.filter((id) => wanted.has(id));
}

/**
 * Random servers that could exist: a shuffled pick of 1 to `maxChoices` choices of the catalogue, each
 * dropped when it contradicts one picked before it (server/choice-space.ts EXCLUSIVE_GROUPS).
 */
export function combinationArbitrary(maxChoices = 40): fc.Arbitrary<ChoiceId[]> {
  return fc.shuffledSubarray([...CHOICE_IDS], { minLength: 1, maxLength: Math.min(maxChoices, CHOICE_IDS.length) }).map((picked) => inCatalogueOrder(compatiblePrefix(picked)));
}

/** The first `count` combinations of a seed: the same seed gives the same combinations, and more of them extend the list. */
export function drawCombinations(seed: number, count: number, maxChoices?: number): ChoiceId[][] {
  if (count <= 0) return [];
  return fc.sample(combinationArbitrary(maxChoices), { seed, numRuns: count });
}

/**
 * The faults each combination is tried with: the catalogue in an order drawn from the seed, dealt out
 * `perCombination` at a time, round and round, so that over many combinations every fault is tried about
 * as often as every other.
 */
export function dealFaults<F>(faults: readonly F[], seed: number, count: number, perCombination: number): F[][] {
  if (faults.length === 0 || perCombination <= 0) return Array.from({ length: count }, () => []);
  const [order] = fc.sample(fc.shuffledSubarray([...faults], { minLength: faults.length, maxLength: faults.length }), { seed: seed ^ 0x5eed, numRuns: 1 });
  const deck = order ?? [...faults];
  const take = Math.min(perCombination, deck.length);
  return Array.from({ length: count }, (_, i) => Array.from({ length: take }, (_, j) => deck[(i * take + j) % deck.length]));
}
