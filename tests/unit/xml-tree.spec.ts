import { expect, _baseTest as test } from '@playwright/test';
import { xmlRoots } from '../../lib/check/client/xml-tree.ts';

/** The small tree the client checks read well-formed XML into (lib/check/client/xml-tree.ts). */

test('elements, attributes, own text, CDATA and references; comments, processing instructions and a DOCTYPE left aside', () => {
  const [root, ...more] = xmlRoots('<?xml version="1.0"?>\n<!DOCTYPE r [<!ENTITY e "x">]>\n<x:r xmlns:x="urn:a" q=\'1>2\'><!-- c --><a>t&amp;u&#65;&#x42;&e;</a><b/><c><![CDATA[<raw>]]></c><d><e>1</e>2</d></x:r>\n');
  expect(more).toEqual([]);
  expect(root).toEqual({
    name: 'x:r',
    attributes: { 'xmlns:x': 'urn:a', q: '1>2' },
    text: '',
    children: [
      { name: 'a', attributes: {}, children: [], text: 't&uAB&e;' },
      { name: 'b', attributes: {}, children: [], text: '' },
      { name: 'c', attributes: {}, children: [], text: '<raw>' },
      { name: 'd', attributes: {}, children: [{ name: 'e', attributes: {}, children: [], text: '1' }], text: '2' },
    ],
  });
});

test('white space between elements is kept as the parent\'s text, and a second root is a second root', () => {
  const roots = xmlRoots('<a>\n  <b>1</b>\n</a><c/>');
  expect(roots.map((r) => r.name)).toEqual(['a', 'c']);
  expect(roots[0]?.text).toBe('\n  \n');
});

test('the plain fast path says well-formed only of well-formed XML, and leaves anything unusual to the validator', async () => {
  const { plainWellFormed } = await import('../../lib/check/client/xml-tree.ts');
  const { XMLValidator } = await import('fast-xml-parser');
  for (const yes of [
    '<?xml version="1.0" encoding="UTF-8"?><AgentRun><agencyCode>128</agencyCode></AgentRun>',
    '<MergeRequest xmlns="urn:x" a=\'1>2\'>\n  <iswcs>T3100000015</iswcs><!-- c --><x/><![CDATA[<y>]]>&amp;</MergeRequest>\n',
  ]) expect(plainWellFormed(yes), yes).toBe(true);
  for (const no of ['<a><b></a></b>', '<a/><b/>', 'x<a/>', '<a>&x;</a>', '<a>1 < 2</a>', '<a b="1" b="2"/>', '<a', '<a>&#0;</a>', '<!DOCTYPE a><a/>', ' <?xml version="1.0"?><a/>', '<a><!-- -- --></a>', '']) expect(plainWellFormed(no), no).toBe(false);
  // Whatever the fast path takes, the validator takes too.
  const fc = await import('fast-check');
  const fragment = fc.constantFrom('<a>', '</a>', '<b>', '</b>', '<c/>', '<a x="1">', '&amp;', '&x;', '<', '>', '"', 'text', ' ', '<!--c-->', '<![CDATA[z]]>', '<?p q?>', ']]>', '&#65;', '<?xml version="1.0"?>');
  fc.assert(
    fc.property(fc.array(fragment, { maxLength: 12 }), (parts) => {
      const text = parts.join('');
      return !plainWellFormed(text) || XMLValidator.validate(text) === true;
    }),
    { numRuns: 3000, seed: 17 },
  );
});
