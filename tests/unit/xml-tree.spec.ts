import { expect, test } from '@playwright/test';
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
