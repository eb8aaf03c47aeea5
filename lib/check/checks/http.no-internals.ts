import { describeAnswer } from '../../contract/answer.ts';
import { fail, pass } from '../helpers.ts';
import { defineCheck } from '../types.ts';

const INTERNALS: readonly RegExp[] = [
  /\n\s*at [\w$.<>[\] ]+ \(?(?:[A-Za-z]:)?[\\/][^)\n]*:\d+(?::\d+)?\)?/, // Node/JS stack frame
  /\bat [\w.<>`]+\(.*\) in [^\n]*:line \d+/, // .NET stack frame
  /Traceback \(most recent call last\)/, // Python
  /\bnode_modules[\\/]/,
  /(?:^|[\s"'(])\/(?:srv|home|usr|var|opt|app)\/[\w./-]+\.(?:js|ts|cs|py|java|go)\b/,
  /[A-Za-z]:\\(?:[\w .-]+\\)+[\w .-]+\.(?:cs|js|dll|exe)\b/,
  /\bSystem\.[A-Z]\w+Exception\b/,
];

/** Safe handling: error answers do not leak stack traces or internal paths. */
export default defineCheck({
  id: 'http.no-internals',
  level: 'http',
  sections: ['RFC 9110 §17'],
  reading: 'HTTP conventions',
  description: 'Error answers carry no stack trace and no internal file path.',
  scope: 'every-exchange',
  judge({ exchange }) {
    const response = exchange.response;
    if (!response || response.status < 400 || response.bodyBytes === 0) return null;
    const hit = INTERNALS.find((re) => re.test(response.body));
    const expected = 'an error body without stack traces or internal paths';
    return hit ? fail(expected, `body matches ${hit.source.slice(0, 40)}…: ${describeAnswer(exchange)}`) : pass(expected, 'none found');
  },
});
