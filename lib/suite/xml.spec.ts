import { declareConformance } from '../conformance.ts';

await declareConformance('xml');
