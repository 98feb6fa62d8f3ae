import { TRANSPORT_KINDS } from '@robot-mcp-kit/server/advanced';
import { CliError } from '../src/cli.error.js';
import { LOG_LEVELS, TRANSPORTS } from '../src/doctor/doctor.checks.js';
import { LOG_LEVELS as SERVER_SIDE_LEVELS } from '@robot-mcp-kit/core/rules';
import { validateToolName, validateTriggerType } from '../src/naming.js';

describe('the transports and log levels the CLI knows are the server ones', () => {
  it('transports and log levels', () => {
    expect(TRANSPORTS).toEqual(TRANSPORT_KINDS);
    expect(LOG_LEVELS).toEqual(SERVER_SIDE_LEVELS);
  });
});

describe('validateToolName', () => {
  it('accepts snake_case', () => {
    expect(validateToolName('scan_room')).toBe('scan_room');
  });

  it.each([
    ['ScanRoom', 'e.g. "scan_room"'],
    ['scan-room', 'e.g. "scan_room"'],
    ['x'.repeat(129), 'at most 128'],
    ['scan_2d', 'e.g. "scan2d"'],
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
