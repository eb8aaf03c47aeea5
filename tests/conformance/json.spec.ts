import { declareConformance } from '../../lib/conformance.ts';

declareConformance('json');
