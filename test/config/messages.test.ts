import { expect, test } from 'vitest';
import { newAjv } from '../../src/config/schema.js';
import { describeErrors } from '../../src/config/messages.js';

const sourceSchema = {
  type: 'object',
  properties: {
    sources: {
      type: 'array',
      items: {
        oneOf: [
          { type: 'object', properties: { file: { type: 'string' } }, required: ['file'], additionalProperties: false },
          { type: 'object', properties: { dir: { type: 'string' }, prefix: { type: 'string' } }, required: ['dir'], additionalProperties: false },
        ],
      },
    },
    ttl: {
      oneOf: [
        { type: 'integer', minimum: 60 },
        { type: 'string', format: 'duration' },
      ],
    },
  },
};

function findings(data: unknown) {
  const validate = newAjv().compile(sourceSchema);
  validate(data);
  return describeErrors(validate.errors ?? [], data);
}

test('a oneOf failure is reported as the mistake in the branch the value was closest to', () => {
  expect(findings({ sources: [{ dir: 'static/', prefx: 'a/' }] })).toEqual([
    { path: ['sources', 0, 'prefx'], at: 'key', message: 'unknown field "prefx" (not in the interface); did you mean "prefix"?' },
  ]);
});

test('a value whose type fits no branch gets one message listing the types', () => {
  expect(findings({ sources: ['pairs.json'] })).toEqual([{ path: ['sources', 0], at: 'value', message: 'expected a map, got "pairs.json"' }]);
  expect(findings({ ttl: true })).toEqual([{ path: ['ttl'], at: 'value', message: 'expected a whole number or a string, got true' }]);
});

test('the branch of the right type explains what is wrong with the value', () => {
  expect(findings({ ttl: '1 day' })).toEqual([{ path: ['ttl'], at: 'value', message: 'expected a duration like 24h or 2h45m, got "1 day"' }]);
  expect(findings({ ttl: 30 })).toEqual([{ path: ['ttl'], at: 'value', message: 'expected a number >= 60, got 30' }]);
});

test('a missing field points at its parent and names the field in the path', () => {
  const validate = newAjv().compile({ type: 'object', properties: { spec: { type: 'object', required: ['name', 'type'] } } });
  const data = { spec: {} };
  validate(data);
  expect(describeErrors(validate.errors ?? [], data)).toEqual([
    { path: ['spec', 'name'], at: 'key', message: 'missing required field "name"' },
    { path: ['spec', 'type'], at: 'key', message: 'missing required field "type"' },
  ]);
});
