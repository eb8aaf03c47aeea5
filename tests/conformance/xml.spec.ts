import { declareConformance } from './declare.ts';

declareConformance('xml');
