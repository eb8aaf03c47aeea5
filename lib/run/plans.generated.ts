import type { PlanData } from './plan-rank.ts';

export const PLAN_DATA: PlanData = { fingerprint: '', seeds: [], runs: 100, faults: {}, choiceSets: [], catches: { destructive: {}, safe: {} }, destructive: { entries: [], smoke: 0 }, safe: { entries: [], smoke: 0 } };
