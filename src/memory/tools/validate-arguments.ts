import { ToolError } from './tool-error';

/** The subset of JSON Schema the memory tools' parameters use. */
export interface ParameterSchema {
  type?: 'object' | 'string' | 'integer' | 'boolean' | 'array';
  description?: string;
  properties?: Record<string, ParameterSchema>;
  required?: string[];
  additionalProperties?: false;
  items?: ParameterSchema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  default?: unknown;
  anyOf?: ParameterSchema[];
}

/**
 * Parses a tool call's arguments and checks them against the tool's parameter schema, so the
 * schema the model is shown is also the one enforced. Throws a ToolError naming the first
 * problem and what was expected.
 */
export function validateArguments(
  schema: ParameterSchema,
  argumentsJson: string,
): Record<string, unknown> {
  let parsed: unknown;
  // Some models send an empty string for "no arguments"; the missing fields are then named.
  const text = argumentsJson.trim() === '' ? '{}' : argumentsJson;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ToolError(
      `arguments are not valid JSON (${(error as Error).message}); send a JSON object like ${example(schema)}`,
    );
  }
  if (!isRecord(parsed))
    throw new ToolError(
      `arguments must be a JSON object like ${example(schema)}, got ${kindOf(parsed)}`,
    );
  const problem = check(schema, parsed, 'arguments');
  if (problem) throw new ToolError(problem);
  return parsed;
}

/** The first problem of a value against a schema, or null. */
function check(schema: ParameterSchema, value: unknown, path: string): string | null {
  if (schema.anyOf) {
    if (schema.anyOf.some((option) => check(option, value, path) === null)) return null;
    return `${path} must be ${schema.description ?? schema.anyOf.map(describe).join(' or ')}`;
  }
  switch (schema.type) {
    case 'object':
      return checkObject(schema, value, path);
    case 'array':
      return checkArray(schema, value, path);
    case 'string':
      return checkString(schema, value, path);
    case 'integer':
      return checkInteger(schema, value, path);
    case 'boolean':
      return typeof value === 'boolean'
        ? null
        : `${path} must be true or false, got ${kindOf(value)}`;
    default:
      return null;
  }
}

function checkObject(schema: ParameterSchema, value: unknown, path: string): string | null {
  if (!isRecord(value)) return `${path} must be an object, got ${kindOf(value)}`;
  const properties = schema.properties ?? {};
  for (const name of schema.required ?? []) {
    if (value[name] === undefined || value[name] === null)
      return `${field(path, name)} is required`;
  }
  for (const [name, item] of Object.entries(value)) {
    const property = properties[name];
    if (!property) {
      if (schema.additionalProperties === false) {
        return `${field(path, name)} is not a parameter; allowed: ${Object.keys(properties).join(', ')}`;
      }
      continue;
    }
    // An explicit null means "use the default", as many models send for optional fields.
    if (item === null && !(schema.required ?? []).includes(name)) continue;
    const problem = check(property, item, field(path, name));
    if (problem) return problem;
  }
  return null;
}

function checkArray(schema: ParameterSchema, value: unknown, path: string): string | null {
  if (!Array.isArray(value)) return `${path} must be an array, got ${kindOf(value)}`;
  if (schema.minItems !== undefined && value.length < schema.minItems)
    return `${path} needs at least ${schema.minItems} item(s)`;
  if (schema.maxItems !== undefined && value.length > schema.maxItems) {
    return `${path} has ${value.length} items; at most ${schema.maxItems} are allowed per call (split it into several calls)`;
  }
  for (let index = 0; index < value.length; index++) {
    const problem = schema.items ? check(schema.items, value[index], `${path}[${index}]`) : null;
    if (problem) return problem;
  }
  return null;
}

function checkString(schema: ParameterSchema, value: unknown, path: string): string | null {
  if (typeof value !== 'string') return `${path} must be a string, got ${kindOf(value)}`;
  if (schema.minLength !== undefined && value.trim().length < schema.minLength)
    return `${path} must not be empty`;
  if (schema.maxLength !== undefined && value.length > schema.maxLength)
    return `${path} is longer than ${schema.maxLength} characters`;
  if (schema.pattern !== undefined && !new RegExp(schema.pattern).test(value)) {
    return `${path} ${JSON.stringify(value)} does not match ${schema.pattern}${schema.description ? ` (${schema.description})` : ''}`;
  }
  return null;
}

function checkInteger(schema: ParameterSchema, value: unknown, path: string): string | null {
  if (typeof value !== 'number' || !Number.isInteger(value))
    return `${path} must be a whole number, got ${kindOf(value)}`;
  if (schema.minimum !== undefined && value < schema.minimum)
    return `${path} must be at least ${schema.minimum}, got ${value}`;
  if (schema.maximum !== undefined && value > schema.maximum)
    return `${path} must be at most ${schema.maximum}, got ${value}`;
  return null;
}

function describe(schema: ParameterSchema): string {
  if (schema.type === 'object')
    return `an object with ${Object.keys(schema.properties ?? {}).join(', ')}`;
  return `a ${schema.type ?? 'value'}`;
}

/** A compact example of the expected arguments, for the error message on unparsable input. */
function example(schema: ParameterSchema): string {
  const required = schema.required ?? [];
  return `{${required.map((name) => `"${name}": …`).join(', ')}}`;
}

function field(path: string, name: string): string {
  return path === 'arguments' ? name : `${path}.${name}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string')
    return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (typeof value === 'number') return `the number ${value}`;
  return `a ${typeof value}`;
}
