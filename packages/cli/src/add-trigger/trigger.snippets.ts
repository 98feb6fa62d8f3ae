import { toCamelCase, toKebabCase } from '@robot-mcp-kit/core/rules';

/** The names one new trigger plugin is written with. */
export interface TriggerNames {
  /** `battery_below` */
  readonly type: string;
  /** `batteryBelowTrigger` */
  readonly variable: string;
  /** `src/triggers/battery-below.trigger.ts` */
  readonly file: string;
  /** `test/triggers/battery-below.trigger.test.ts` */
  readonly testFile: string;
}

export function triggerNames(type: string): TriggerNames {
  const kebab = toKebabCase(type);
  return {
    type,
    variable: `${toCamelCase(type)}Trigger`,
    file: `src/triggers/${kebab}.trigger.ts`,
    testFile: `test/triggers/${kebab}.trigger.test.ts`,
  };
}

/**
 * How the generated plugin reads progress, guessed from the type's name:
 * `battery_below` → fires when progress `battery` < `value`; `speed_above` → `speed` > `value`;
 * anything else (`zone_reached`) → fires when progress `zone_reached` equals `value`.
 */
export interface TriggerShape {
  readonly field: string;
  readonly comparison: 'below' | 'above' | 'equals';
}

export function triggerShape(type: string): TriggerShape {
  const match = /^(.+)_(below|above)$/.exec(type);
  if (match) return { field: match[1] as string, comparison: match[2] as 'below' | 'above' };
  return { field: type, comparison: 'equals' };
}

/** The plugin module: a `TriggerPlugin` object with `validate` and `evaluate`. */
export function triggerPluginText(names: TriggerNames): string {
  const { field, comparison } = triggerShape(names.type);
  const numeric = comparison !== 'equals';
  const operator = comparison === 'below' ? '<' : '>';
  const description = numeric
    ? `fires when the progress ${field} ${operator} value`
    : `fires when the progress ${field} equals value`;
  const validate = numeric
    ? `    const { value } = trigger;
    return typeof value === 'number' && Number.isFinite(value)
      ? []
      : [\`value: expected a number, got \${JSON.stringify(value)}\`];`
    : `    const { value } = trigger;
    return ['string', 'number', 'boolean'].includes(typeof value)
      ? []
      : [\`value: expected a string, number or boolean, got \${JSON.stringify(value)}\`];`;
  const evaluate = numeric
    ? `    const current = progress.${field};
    if (typeof current !== 'number' || typeof trigger.value !== 'number') return undefined;
    return current ${operator} trigger.value ? { ${field}: current } : undefined;`
    : `    const current = progress.${field};
    return current !== undefined && current === trigger.value ? { ${field}: current } : undefined;`;
  const example = numeric ? '20' : '"kitchen"';
  return `import { type JsonObject, type TriggerPlugin, type TriggerSpec } from '@robot-mcp-kit/server';

/**
 * \`{"type": "${names.type}", "value": ${example}}\`: ${description}. The trigger_fired event carries
 * \`{ ${field} }\`. Adapt the field and the condition to what your tools report with ctx.progress(...).
 */
export const ${names.variable}: TriggerPlugin = {
  type: '${names.type}',
  description: '${description}',

  /** Runs when a task starts: one message per bad field, naming it. */
  validate(trigger: TriggerSpec): string[] {
${validate}
  },

  /** Runs after each progress report: the extra payload of trigger_fired to fire, undefined not to. */
  evaluate(trigger: TriggerSpec, progress: JsonObject): JsonObject | undefined {
${evaluate}
  },
};
`;
}

/** The plugin's test: validate, evaluate, and (with a plugins list) that it is registered. */
export function triggerTestText(
  names: TriggerNames,
  pluginSpecifier: string,
  pluginsSpecifier?: string,
): string {
  const { field, comparison } = triggerShape(names.type);
  const [value, firing, quiet] =
    comparison === 'below'
      ? ['20', '15', '25']
      : comparison === 'above'
        ? ['20', '25', '15']
        : ["'kitchen'", "'kitchen'", "'hall'"];
  const registered = pluginsSpecifier
    ? `
  it('is registered', () => {
    expect(plugins).toContain(${names.variable});
  });
`
    : '';
  const pluginsImport = pluginsSpecifier ? `import { plugins } from '${pluginsSpecifier}';\n` : '';
  return `import { type TaskInfo } from '@robot-mcp-kit/server';
${pluginsImport}import { ${names.variable} } from '${pluginSpecifier}';

// evaluate() may look at the task too; this plugin does not.
const task = {} as TaskInfo;

describe('${names.type} trigger', () => {${registered}
  it('accepts a valid trigger and names a bad field', () => {
    expect(${names.variable}.validate?.({ type: '${names.type}', value: ${value} })).toEqual([]);
    expect(${names.variable}.validate?.({ type: '${names.type}' })?.join()).toContain('value');
  });

  it('fires only when the condition holds', () => {
    const trigger = { type: '${names.type}', value: ${value} };
    expect(${names.variable}.evaluate(trigger, { ${field}: ${firing} }, task)).toEqual({ ${field}: ${firing} });
    expect(${names.variable}.evaluate(trigger, { ${field}: ${quiet} }, task)).toBeUndefined();
    expect(${names.variable}.evaluate(trigger, {}, task)).toBeUndefined();
  });
});
`;
}
