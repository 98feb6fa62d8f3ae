import { type ClassConstructor, instanceToPlain, plainToInstance } from 'class-transformer';
import { getMetadataStorage } from 'class-validator';

type Ctor = ClassConstructor<object>;

/** What class-validator-jsonschema reads of a `@Type()`: the nested class, and the property's design type. */
export interface ProbedType {
  typeFunction: () => Ctor;
  reflectedType: unknown;
}

/** What class-validator-jsonschema reads of an `@Expose({ name })`. */
export interface ProbedExpose {
  target: Ctor;
  propertyName: string;
  options: { name: string };
}

interface PropertyShape {
  type: ProbedType | undefined;
  excluded: boolean;
  exposedAs: string | undefined;
}

const MARK = '\u0000rmk-probe\u0000';
const UNKNOWN_KEY = '\u0000rmk-unknown\u0000';
const MAP_KEY = 'rmk-probe';

/**
 * What class-transformer does with each property of a DTO, found through its public API only
 * (`plainToInstance`, `instanceToPlain`) instead of its metadata storage, which it does not export:
 * the class a probe value becomes (`@Type(() => X)`, for a single value, each array element or each
 * map value), whether the property is dropped (`@Exclude()`, either direction) and the key it is
 * written under (`@Expose({ name })`). It answers the three questions class-validator-jsonschema
 * asks its `classTransformerMetadataStorage` option (`findTypeMetadata`, `findExcludeMetadata`,
 * `getExposedMetadatas`), so `@Type`, `@Exclude` and `@Expose` shape the schema as the library says.
 * A probe that throws (an author's `@Transform` refusing the probe value) reads as "no decorator".
 */
export class TransformerShapeProbe {
  private readonly shapes = new Map<Ctor, Map<string, PropertyShape>>();

  findTypeMetadata(target: Ctor, propertyName: string): ProbedType | undefined {
    return this.shape(target, propertyName).type;
  }

  findExcludeMetadata(target: Ctor, propertyName: string): true | undefined {
    return this.shape(target, propertyName).excluded ? true : undefined;
  }

  getExposedMetadatas(target: Ctor): ProbedExpose[] {
    const exposed: ProbedExpose[] = [];
    for (const propertyName of propertiesOf(target)) {
      const name = this.shape(target, propertyName).exposedAs;
      if (name !== undefined) exposed.push({ target, propertyName, options: { name } });
    }
    return exposed;
  }

  private shape(target: Ctor, propertyName: string): PropertyShape {
    let byProperty = this.shapes.get(target);
    if (!byProperty) this.shapes.set(target, (byProperty = new Map()));
    let shape = byProperty.get(propertyName);
    if (!shape) {
      const exposedAs = attempt(() => exposedName(target, propertyName));
      const key = exposedAs ?? propertyName;
      shape = {
        type: attempt(() => nestedType(target, propertyName, key)),
        excluded: attempt(() => isExcluded(target, propertyName, key)) ?? false,
        exposedAs,
      };
      byProperty.set(propertyName, shape);
    }
    return shape;
  }
}

function attempt<T>(probe: () => T): T | undefined {
  try {
    return probe();
  } catch {
    return undefined;
  }
}

/** The properties class-validator knows of `target` (its own and inherited). */
function propertiesOf(target: Ctor): Set<string> {
  const metadatas = getMetadataStorage().getTargetValidationMetadatas(target, '', true, false);
  return new Set(metadatas.map((meta) => meta.propertyName).filter((name) => name !== undefined));
}

function bareInstance(target: Ctor, values: Record<string, unknown>): object {
  return Object.assign(Object.create(target.prototype as object) as object, values);
}

/** The plain key `instanceToPlain` writes the property under, when it is not the property's own name. */
function exposedName(target: Ctor, propertyName: string): string | undefined {
  const plain = instanceToPlain(bareInstance(target, { [propertyName]: MARK })) as Record<string, unknown>;
  if (plain[propertyName] === MARK) return undefined;
  return Object.keys(plain).find((key) => plain[key] === MARK);
}

/**
 * Dropped by class-transformer in either direction while the class keeps an unknown property (a
 * class-level `@Exclude()` drops every property not exposed; the library reads property decorators only).
 */
function isExcluded(target: Ctor, propertyName: string, key: string): boolean {
  const keepsUnknown = UNKNOWN_KEY in (plainToInstance(target, { [UNKNOWN_KEY]: 1 }) as object);
  if (!keepsUnknown) return false;
  const toClass = plainToInstance(target, { [key]: MARK }) as Record<string, unknown>;
  const toPlain = instanceToPlain(bareInstance(target, { [propertyName]: MARK })) as Record<string, unknown>;
  return toClass[propertyName] !== MARK || !Object.values(toPlain).includes(MARK);
}

/** The class a probe object becomes in the property (each element of an array, each value of a map). */
function nestedType(target: Ctor, propertyName: string, key: string): ProbedType | undefined {
  const reflectedType: unknown = Reflect.getMetadata('design:type', target.prototype as object, propertyName);
  const probe = reflectedType === Array ? [{}] : reflectedType === Map ? { [MAP_KEY]: {} } : {};
  const instance = plainToInstance(target, { [key]: probe }) as Record<string, unknown>;
  const value = instance[propertyName];
  const element: unknown =
    value instanceof Map ? value.get(MAP_KEY) : Array.isArray(value) ? (value[0] as unknown) : value;
  if (element === null || typeof element !== 'object') return undefined;
  const nested = (element as object).constructor as Ctor | undefined;
  if (!nested || nested === Object) return undefined;
  return { typeFunction: () => nested, reflectedType };
}
