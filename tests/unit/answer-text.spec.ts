import { _baseTest as test, expect } from '@playwright/test';
import { carriesText, leadsWithText } from '../../lib/contract/answer.ts';
import { decodeResponseText } from '../../lib/run/http/text.ts';

test.describe('stated texts', () => {
  test('the text as a whole, or leading a detail after a separator', () => {
    for (const body of ['Bad Request', ' Bad Request\n', 'Bad Request: agencyCode must be 3 characters', 'Bad Request\nagencyCode', 'Bad Request - agencyCode', 'Bad Request (agencyCode)', 'Bad Request.']) {
      expect(carriesText(body, 'Bad Request'), body).toBe(true);
    }
    expect(carriesText('{"title":"Bad Request","status":400}', 'Bad Request')).toBe(true);
    expect(carriesText('{"message":"Bad Request: runId is unknown"}', 'Bad Request')).toBe(true);
    expect(carriesText('<Error><Message>Bad Request: x</Message></Error>', 'Bad Request')).toBe(true);
    // After the status it names, as many frameworks write an error message (docs/readings.md).
    for (const body of ['{"code":400,"message":"HTTP 400 Bad Request"}', '400 Bad Request', 'HTTP/1.1 400 Bad Request']) expect(carriesText(body, 'Bad Request'), body).toBe(true);
    // The forms frameworks write (a fresh reading's legitimate servers): ASP.NET Core's BadRequest("…") asked for
    // JSON (a JSON string with a detail), its UseStatusCodePages, Tomcat's error page and its text.
    const tomcat = '<!doctype html><html lang="en"><head><title>HTTP Status 400 \u2013 Bad Request</title></head><body><h1>HTTP Status 400 \u2013 Bad Request</h1></body></html>';
    for (const body of ['"Bad Request: the agent run is not valid"', 'Status Code: 400; Bad Request', 'HTTP Status 400 \u2013 Bad Request', tomcat, '400: Bad Request', '"HTTP 400 Bad Request"']) expect(carriesText(body, 'Bad Request'), body).toBe(true);
    expect(carriesText('Status Code: 401; Not Authorized', 'Not Authorized')).toBe(true);
  });

  test('a text that only starts the same way, or another text, is not carried', () => {
    for (const body of ['Bad Requests', 'Bad Request body', 'Invalid request', 'bad request', '{"title":"One or more validation errors occurred.","status":400}', 'Error: Bad Request', 'HTTP 400 Bad Requests', '400', '"Bad Requests"', 'Status Code: 400; Bad Requests', 'Status Code: 400;', 'HTTP Status 400 \u2013 Bad Request body']) {
      expect(carriesText(body, 'Bad Request'), body).toBe(false);
    }
    expect(leadsWithText('Not Authorizedd', 'Not Authorized')).toBe(false);
  });
});

test.describe('response text decoding', () => {
  test('a UTF-8 byte order mark is dropped and noted', () => {
    const d = decodeResponseText(Buffer.from('\ufeff{"runId":"a"}', 'utf8'), 'application/json');
    expect(d).toEqual({ text: '{"runId":"a"}', encoding: 'utf-8 (byte order mark)' });
  });

  test('UTF-16 by byte order mark, or by the declared charset', () => {
    const xml = '<?xml version="1.0" encoding="utf-16"?><CsnNotification><runId>é</runId></CsnNotification>';
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(xml, 'utf16le')]);
    expect(decodeResponseText(le, 'application/xml; charset=utf-16')).toEqual({ text: xml, encoding: 'utf-16le (byte order mark)' });
    const be = Buffer.from(xml, 'utf16le').swap16();
    expect(decodeResponseText(be, 'application/xml; charset="UTF-16BE"').text).toBe(xml);
  });

  test('plain UTF-8 and unknown charsets read as UTF-8 without a note', () => {
    expect(decodeResponseText(Buffer.from('Bad Request'), 'text/plain; charset=bogus')).toEqual({ text: 'Bad Request' });
    expect(decodeResponseText(Buffer.from('é'), undefined)).toEqual({ text: 'é' });
  });
});
