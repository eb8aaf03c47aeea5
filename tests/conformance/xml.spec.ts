import { declareConformance } from '../../lib/conformance.ts';

await declareConformance('xml');
