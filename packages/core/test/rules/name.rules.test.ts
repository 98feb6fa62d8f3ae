import { TriggerRegistry } from '@robot-mcp-kit/core';
import { BUILTIN_TRIGGERS } from '@robot-mcp-kit/core/host';
import {
  BUILTIN_TRIGGER_TYPES,
  isMcpToolName,
  isReservedToolName,
  isScaffoldToolName,
  isTriggerType,
  KIT_TOOL_NAMES,
  RESERVED_TOOL_NAMES,
  suggestSnakeCase,
  toCamelCase,
  toKebabCase,
  toPascalCase,
  toSnakeCase,
  TOOL_NAME_MAX_LENGTH,
} from '@robot-mcp-kit/core/rules';

describe('tool names follow MCP 2025-11-25: 1 to 128 characters of A-Z a-z 0-9 _ - .', () => {
  it.each([
    'a',
    'scan_room',
    'getUser',
    'DATA_EXPORT_v2',
    'admin.tools.list',
    'user-profile',
    'x'.repeat(128),
  ])('accepts %j', (name) => {
    expect(isMcpToolName(name)).toBe(true);
  });

  it.each(['', 'x'.repeat(129), 'scan room', 'a,b', 'user/profile', 'naïve', 'a:b'])('refuses %j', (name) => {
    expect(isMcpToolName(name)).toBe(false);
  });

  it('pins the limit at 128', () => {
    expect(TOOL_NAME_MAX_LENGTH).toBe(128);
    expect(isMcpToolName(42)).toBe(false);
  });
});

describe('reserved tool names', () => {
  it('are the tools of the reconciliation and event-feed features, frozen', () => {
    expect(RESERVED_TOOL_NAMES).toEqual([...KIT_TOOL_NAMES.reconciliation, ...KIT_TOOL_NAMES.eventFeed]);
    expect([...RESERVED_TOOL_NAMES].sort()).toEqual(
      ['cancel_task', 'get_events', 'get_task', 'list_tasks', 'wait_for_event'].sort(),
    );
    expect(Object.isFrozen(RESERVED_TOOL_NAMES)).toBe(true);
    expect(isReservedToolName('get_task')).toBe(true);
    expect(isReservedToolName('my_get_task')).toBe(false);
  });
});

describe('scaffold tool names: lower snake_case served under the same name as their method', () => {
  it.each(['patrol', 'scan_room', 'get_status2', 'scan2d_room', 'x'.repeat(128)])('accepts %j', (name) => {
    expect(isScaffoldToolName(name)).toBe(true);
    expect(toSnakeCase(toCamelCase(name))).toBe(name);
  });

  it.each([
    'ScanRoom',
    'scan-room',
    '_scan',
    'scan__room',
    'scan_',
    '2scan',
    'scan_2d',
    'a_b_c',
    'x'.repeat(129),
  ])('refuses %j', (name) => {
    expect(isScaffoldToolName(name)).toBe(false);
  });
});

describe('trigger types: lower snake_case, at most 64 characters', () => {
  it('accepts and refuses', () => {
    expect(isTriggerType('eta_below')).toBe(true);
    expect(isTriggerType('x'.repeat(64))).toBe(true);
    for (const bad of ['x'.repeat(65), 'Eta_below', '1st', 'eta__below', 'eta_', '', 7]) {
      expect(isTriggerType(bad)).toBe(false);
    }
  });
});

describe('built-in triggers: one list', () => {
  it('is what withBuiltins registers and what BUILTIN_TRIGGER_TYPES names', () => {
    expect(BUILTIN_TRIGGER_TYPES).toEqual(['progress_above', 'eta_below', 'zone_entered']);
    expect(BUILTIN_TRIGGERS.map((t) => t.type)).toEqual(BUILTIN_TRIGGER_TYPES);
    expect(TriggerRegistry.withBuiltins().list()).toEqual(BUILTIN_TRIGGERS);
  });
});

describe('spellings', () => {
  it('derive tool names from method names and back', () => {
    expect(toSnakeCase('navigateTo')).toBe('navigate_to');
    expect(toSnakeCase('getHTTPStatus')).toBe('get_http_status');
    expect(toCamelCase('scan_room')).toBe('scanRoom');
    expect(toPascalCase('my-nav')).toBe('MyNav');
    expect(toKebabCase('scan_room')).toBe('scan-room');
  });

  it.each([
    ['scanRoom', 'scan_room'],
    ['Scan Room!', 'scan_room'],
    ['scan-room', 'scan_room'],
    ['2d scan', 'd_scan'],
    ['scan_2d', 'scan2d'],
    ['a_b_c', 'a_bc'],
    ['!!!', ''],
  ])('suggests for %j: %j, a valid scaffold name', (input, expected) => {
    const suggestion = suggestSnakeCase(input);
    expect(suggestion).toBe(expected);
    if (suggestion) expect(isScaffoldToolName(suggestion)).toBe(true);
  });

  it('cuts a suggestion to the limit', () => {
    expect(suggestSnakeCase('abc_'.repeat(40), 64).length).toBeLessThanOrEqual(64);
  });
});
