import { readFileSync } from 'node:fs';
import { XMLParser } from 'fast-xml-parser';

/** A JUnit file as the tests read it: Playwright's junit.xml, or the run's conformance-junit.xml. */
export interface JunitCase {
  name: string;
  error?: { message: string; type: string };
}
export interface JunitFile {
  testsuites: { errors: string; failures: string; testsuite: Array<{ testcase: JunitCase[] }> };
}

export function junit(file: string): JunitFile {
  return new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => ['testsuite', 'testcase'].includes(name) }).parse(readFileSync(file, 'utf8')) as JunitFile;
}

/** The test cases of a JUnit file that carry an error (not a failure): a run that could not go on. */
export function errorCases(file: string): JunitCase[] {
  return junit(file).testsuites.testsuite.flatMap((s) => s.testcase).filter((c) => c.error);
}
