import { declareConformance } from '../engine/conformance.ts';

await declareConformance('json');
