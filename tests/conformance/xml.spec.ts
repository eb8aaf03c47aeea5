import { declareConformance } from '../../lib/conformance.ts';

declareConformance('xml');
