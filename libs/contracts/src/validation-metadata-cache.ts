import { getMetadataStorage } from 'class-validator';

type Storage = ReturnType<typeof getMetadataStorage>;
type Lookup = Storage['getTargetValidationMetadatas'];
type ValidationMetadata = ReturnType<Lookup>[number];
type Grouped = Record<string, ValidationMetadata[]>;

const installed = Symbol.for('loom.validationMetadataCache');

/**
 * Keeps class-validator's answer to "which rules does this class have" until a decorator adds
 * one. class-validator works it out again on every validation of every nested object, and to
 * find inherited rules it tests the class against every decorated class of the process (about 80
 * DTOs here): under append load that lookup alone took about 3% of the gateway thread. The rules
 * of a class change only when a decorator registers a rule or a constraint, so both registrations
 * drop everything kept. Lookups by validation group are rare here and are not kept.
 *
 * class-validator only reads the arrays and groupings it is given (it filters into new arrays),
 * so handing it the same ones again is safe.
 */
export function cacheValidationMetadata(storage: Storage = getMetadataStorage()): void {
  const marked = storage as Storage & { [installed]?: true };
  if (marked[installed]) return;
  marked[installed] = true;

  let byClass = new Map<unknown, Map<string, ValidationMetadata[]>>();
  let grouped = new WeakMap<ValidationMetadata[], Grouped>();
  const forget = (): void => {
    byClass = new Map();
    grouped = new WeakMap();
  };

  const lookup: Lookup = storage.getTargetValidationMetadatas.bind(storage);
  storage.getTargetValidationMetadatas = (target, schema, always, strictGroups, groups) => {
    if (groups !== undefined && groups.length > 0) return lookup(target, schema, always, strictGroups, groups);
    const key = `${schema}\u0000${always}\u0000${strictGroups}`;
    let kept = byClass.get(target);
    if (kept === undefined) byClass.set(target, (kept = new Map()));
    let answer = kept.get(key);
    if (answer === undefined) kept.set(key, (answer = lookup(target, schema, always, strictGroups, groups)));
    return answer;
  };

  const group = storage.groupByPropertyName.bind(storage);
  storage.groupByPropertyName = (metadata) => {
    let answer = grouped.get(metadata);
    if (answer === undefined) grouped.set(metadata, (answer = group(metadata)));
    return answer;
  };

  const addRule = storage.addValidationMetadata.bind(storage);
  storage.addValidationMetadata = (metadata) => {
    forget();
    addRule(metadata);
  };
  const addConstraint = storage.addConstraintMetadata.bind(storage);
  storage.addConstraintMetadata = (metadata) => {
    forget();
    addConstraint(metadata);
  };
}
