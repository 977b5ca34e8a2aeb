import { getMetadataStorage, IsInt, IsString, MetadataStorage, validateSync } from 'class-validator';
import { LoomError } from './errors';
import { Ops, OpNames } from './ops';
import { validateInput } from './validate';

// class-validator's metadata API takes classes as `Function`.
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
type Class = Function;

/** class-validator's own lookup, not the kept one. */
function fresh(target: Class): unknown {
  return MetadataStorage.prototype.getTargetValidationMetadatas.call(getMetadataStorage(), target, undefined as unknown as string, false, false, undefined);
}

function kept(target: Class): unknown {
  return getMetadataStorage().getTargetValidationMetadatas(target, undefined as unknown as string, false, false, undefined);
}

describe('validation rules kept per class (validation-metadata-cache)', () => {
  it('[issue 9: validation] every op request class answers the same rules kept as class-validator works out afresh, and the same array again', () => {
    for (const op of OpNames) {
      const type = Ops[op].request as Class;
      try {
        validateInput(type as new () => object, {});
      } catch {
        // Most requests need fields: the lookups are what counts here.
      }
    }
    // Every class class-validator knows, nested sections included.
    const classes = [...(getMetadataStorage() as unknown as { validationMetadatas: Map<unknown, unknown> }).validationMetadatas.keys()].filter((k): k is Class => typeof k === 'function');
    expect(classes.length).toBeGreaterThan(OpNames.length / 2);
    for (const type of classes) {
      expect({ type: type.name, rules: kept(type) }).toEqual({ type: type.name, rules: fresh(type) });
      expect(kept(type)).toBe(kept(type));
    }
  });

  it('[issue 9: name each bad field] a rule a decorator adds after the class was validated is enforced at once, on the class and on a class that extends it', () => {
    class Late {
      @IsString()
      name!: string;
    }
    class LaterStill extends Late {}
    const check = (type: new () => object, body: object): string[] => {
      try {
        validateInput(type, body);
        return [];
      } catch (error) {
        return ((error as LoomError).fields ?? []).map((f) => f.field);
      }
    };
    expect(check(Late, { name: 'a' })).toEqual([]);
    expect(check(LaterStill, { name: 'a' })).toEqual([]);
    // A field no rule names is refused as unknown; once a rule names it, its rule is what counts.
    expect(check(Late, { name: 'a', size: 3 })).toEqual(['size']);
    IsInt()(Late.prototype, 'size');
    expect(check(Late, { name: 'a', size: 3 })).toEqual([]);
    expect(check(Late, { name: 'a', size: 'three' })).toEqual(['size']);
    expect(check(LaterStill, { name: 'a', size: 'three' })).toEqual(['size']);
    expect(validateSync(Object.assign(new LaterStill(), { name: 1, size: 2 })).map((e) => e.property)).toEqual(['name']);
  });
});
