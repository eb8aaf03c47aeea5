import { _baseTest as test, expect } from '@playwright/test';
import { fieldConstraints } from '../../lib/contract/constraints.ts';
import { operation } from '../../lib/contract/operations.ts';
import { validateResource } from '../../lib/contract/validators.ts';

test('the contract lists the four operations with their documented statuses', () => {
  expect(operation('notifyAgentRun').statuses).toEqual([200, 400, 401]);
  expect(operation('mergeIswcMetadata').statuses).toEqual([204, 400, 404]);
  expect(operation('deleteSubmission').statuses).toEqual([204, 400, 404]);
  expect(operation('demergeIswcMetadata').statuses).toEqual([204, 400, 404]);
  expect(operation('notifyAgentRun').texts).toEqual({ 400: 'Bad Request', 401: 'Not Authorized' });
});

test('lengths count code points, not UTF-16 units', () => {
  expect(validateResource('AgentRun', { agencyCode: 'A😀B' })).toEqual([]);
  expect(validateResource('AgentRun', { agencyCode: '0😀' })).not.toEqual([]);
  expect(fieldConstraints().length).toBeGreaterThan(10);
});
