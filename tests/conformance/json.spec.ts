import { declareConformance } from './declare.ts';

declareConformance('json');
