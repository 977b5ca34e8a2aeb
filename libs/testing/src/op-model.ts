import 'reflect-metadata';
import { getMetadataStorage } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';
import { plainToInstance } from 'class-transformer';

/** What a request field takes, read from its class-validator (and class-transformer) decorators. */
export interface FieldModel {
  name: string;
  optional: boolean;
  kind: 'string' | 'int' | 'number' | 'boolean' | 'enum' | 'date' | 'object' | 'strings' | 'nested' | 'nestedArray' | 'unknown';
  min?: number;
  max?: number;
  minLength?: number;
  maxLength?: number;
  values?: readonly unknown[];
  pattern?: RegExp;
  minItems?: number;
  maxItems?: number;
  nested?: RequestModel;
}

export interface RequestModel {
  name: string;
  fields: FieldModel[];
}

type Ctor = new () => object;

/**
 * The fields of a request class as its validators declare them: the contract a fuzzer (or a
 * test that every field is bounded) reads, so it follows the DTOs without a list of its own.
 */
export function requestModel(cls: Ctor): RequestModel {
  const metas = getMetadataStorage().getTargetValidationMetadatas(cls, '', true, false);
  const byField = new Map<string, ValidationMetadata[]>();
  for (const meta of metas) byField.set(meta.propertyName, [...(byField.get(meta.propertyName) ?? []), meta]);
  const fields: FieldModel[] = [];
  for (const [name, list] of byField) {
    const named = (n: string) => list.find((m) => m.name === n && !m.each);
    const each = (n: string) => list.find((m) => m.name === n && m.each);
    const field: FieldModel = { name, optional: list.some((m) => m.type === 'conditionalValidation'), kind: 'unknown' };
    const num = (n: string) => named(n)?.constraints?.[0] as number | undefined;
    const assign = <K extends keyof FieldModel>(key: K, value: FieldModel[K] | undefined) => {
      if (value !== undefined) field[key] = value;
    };
    assign('min', num('min'));
    assign('max', num('max'));
    assign('minLength', num('minLength') ?? (each('minLength')?.constraints?.[0] as number | undefined));
    assign('maxLength', num('maxLength') ?? (each('maxLength')?.constraints?.[0] as number | undefined));
    assign('minItems', num('arrayMinSize'));
    assign('maxItems', num('arrayMaxSize'));
    assign('pattern', (named('matches') ?? each('matches'))?.constraints?.[0] as RegExp | undefined);
    const nestedType = list.some((m) => m.type === 'nestedValidation') ? nestedClass(cls, name) : undefined;
    if (named('isIn')) {
      field.kind = 'enum';
      field.values = named('isIn')!.constraints[0] as readonly unknown[];
    } else if (named('isoTime')) field.kind = 'date';
    else if (named('isInt')) field.kind = 'int';
    else if (named('isNumber')) field.kind = 'number';
    else if (named('isBoolean')) field.kind = 'boolean';
    else if (nestedType && named('isArray')) {
      field.kind = 'nestedArray';
      field.nested = requestModel(nestedType);
    } else if (nestedType) {
      field.kind = 'nested';
      field.nested = requestModel(nestedType);
    } else if (named('isArray')) field.kind = 'strings';
    else if (named('isObject')) field.kind = 'object';
    else if (named('isString')) field.kind = 'string';
    fields.push(field);
  }
  return { name: cls.name, fields };
}

/** The class a nested field holds (its @Type), found the public way: by transforming an empty one. */
function nestedClass(cls: Ctor, field: string): Ctor | undefined {
  const probe = plainToInstance(cls, { [field]: [{}] }) as Record<string, unknown>;
  const value = probe[field];
  const element = Array.isArray(value) ? (value[0] as object | undefined) : (value as object | undefined);
  const ctor = element?.constructor as Ctor | undefined;
  return ctor && ctor !== Object && ctor !== Array ? ctor : undefined;
}
