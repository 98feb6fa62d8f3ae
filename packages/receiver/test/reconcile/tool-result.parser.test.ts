import { ReconcileToolError } from '@robot-mcp-kit/receiver';
import { toolResultJson } from '../../src/reconcile/tool-result.parser.js';

describe('toolResultJson', () => {
  it('parses the JSON text content, joined', () => {
    const result = {
      content: [
        { type: 'text', text: '{"tasks":' },
        { type: 'text', text: '[]}' },
      ],
    };
    expect(toolResultJson(result)).toEqual({ tasks: [] });
  });

  it('falls back to structuredContent when there is no text', () => {
    expect(toolResultJson({ content: [], structuredContent: { tasks: [] } })).toEqual({ tasks: [] });
  });

  it.each([
    [{ content: [] }, /no text content/],
    [undefined, /no text content/],
    [{ content: [{ type: 'text', text: '[1]' }] }, /not an object/],
    [{ content: [{ type: 'text', text: '{' }] }, /not JSON/],
    [{ content: [], isError: true }, /tool error: no message/],
  ])('refuses %j', (result, message) => {
    expect(() => toolResultJson(result)).toThrow(ReconcileToolError);
    expect(() => toolResultJson(result)).toThrow(message);
  });
});
