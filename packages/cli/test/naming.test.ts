import {
  BUILTIN_TRIGGER_PLUGINS,
  RESERVED_TOOL_NAMES as SERVER_RESERVED,
  TRANSPORT_KINDS,
} from '@robot-mcp-kit/server';
import { CliError } from '../src/cli.error.js';
import { TRANSPORTS } from '../src/doctor/doctor.checks.js';
import {
  BUILTIN_TRIGGER_TYPES,
  methodToToolName,
  RESERVED_TOOL_NAMES,
  toCamelCase,
  toKebabCase,
  toPascalCase,
  toSnakeCase,
  validateToolName,
  validateTriggerType,
} from '../src/naming.js';

describe('the names the CLI knows match the server package', () => {
  it('reserved tool names, built-in trigger types and transports', () => {
    expect([...RESERVED_TOOL_NAMES].sort()).toEqual([...SERVER_RESERVED].sort());
    expect([...BUILTIN_TRIGGER_TYPES].sort()).toEqual(BUILTIN_TRIGGER_PLUGINS.map((p) => p.type).sort());
    expect([...TRANSPORTS].sort()).toEqual([...TRANSPORT_KINDS].sort());
  });
});

describe('validateToolName', () => {
  it('accepts snake_case', () => {
    expect(validateToolName('scan_room')).toBe('scan_room');
  });

  it.each([
    ['ScanRoom', 'e.g. "scan_room"'],
    ['scan-room', 'e.g. "scan_room"'],
    ['x'.repeat(65), 'at most 64'],
    ['get_task', 'reserved by the kit'],
    ['constructor', 'cannot be a method name'],
  ])('refuses %j (%s)', (name, message) => {
    expect(() => validateToolName(name)).toThrow(CliError);
    expect(() => validateToolName(name)).toThrow(message);
  });
});

describe('validateTriggerType', () => {
  it('accepts snake_case', () => {
    expect(validateTriggerType('battery_below')).toBe('battery_below');
  });

  it('refuses bad spellings and built-in types', () => {
    expect(() => validateTriggerType('Battery-Below')).toThrow('e.g. "battery_below"');
    expect(() => validateTriggerType('1st')).toThrow('not a valid trigger type');
    expect(() => validateTriggerType('eta_below')).toThrow('is a built-in trigger type');
  });
});

describe('case helpers', () => {
  it('convert between the spellings', () => {
    expect(toCamelCase('scan_room')).toBe('scanRoom');
    expect(toPascalCase('scan_room')).toBe('ScanRoom');
    expect(toKebabCase('scan_room')).toBe('scan-room');
    expect(toSnakeCase('ScanRoom')).toBe('scan_room');
    expect(methodToToolName('getHTTPStatus')).toBe('get_http_status');
    expect(methodToToolName('scanRoom')).toBe('scan_room');
  });
});
