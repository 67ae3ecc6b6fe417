/**
 * A collection's `quantization_config`, read the way Qdrant's serde types read it: an
 * untagged choice of `{scalar}`, `{product}` or `{binary}`. Scalar int8 is implemented;
 * product and binary quantization are refused by name.
 */
import { formatError, validationError } from '../errors.js';
import type { ScalarQuantizationConfig } from '../quantization/scalar.js';
import { INT8_MAX_DIM } from '../simd/int8-kernels.js';
import { objectBody, optional, readBool, readNumber } from './fields.js';
import { expectFields, notSupported, readVariant } from './strict.js';

const SCALAR_FIELDS = ['type', 'quantile', 'always_ram'];

/** `quantization_config` of a create body for `size`-float vectors; undefined when absent or null. */
export function readQuantizationConfig(
  raw: unknown,
  size: number,
): ScalarQuantizationConfig | undefined {
  if (raw === undefined || raw === null) return undefined;
  const body = objectBody(raw, 'quantization_config');
  const keys = Object.keys(body);
  if (keys.length !== 1 || !['scalar', 'product', 'binary'].includes(keys[0]!)) {
    throw formatError(
      'quantization_config: data did not match any variant of untagged enum QuantizationConfig',
    );
  }
  if (body.product !== undefined) throw notSupported('quantization_config.product');
  if (body.binary !== undefined) throw notSupported('quantization_config.binary');
  const scalar = objectBody(body.scalar, 'quantization_config.scalar');
  expectFields(scalar, SCALAR_FIELDS, 'quantization_config.scalar');
  if (optional(scalar, 'type') === undefined) {
    throw formatError('quantization_config.scalar: missing field `type`');
  }
  readVariant(scalar, 'type', ['int8'], 'int8', 'quantization_config.scalar');
  const quantile = readNumber(scalar, 'quantile');
  if (quantile !== undefined && (quantile < 0.5 || quantile > 1)) {
    throw validationError(
      `quantization_config.scalar.quantile: value ${quantile} invalid, must be from 0.5 to 1.0`,
    );
  }
  if (size > INT8_MAX_DIM) {
    throw notSupported('quantization_config', `int8 codes for at most ${INT8_MAX_DIM} dimensions`);
  }
  const alwaysRam = optional(scalar, 'always_ram');
  return {
    type: 'int8',
    ...(quantile === undefined ? {} : { quantile }),
    ...(alwaysRam === undefined ? {} : { alwaysRam: readBool(scalar, 'always_ram', false) }),
  };
}

/** A collection's quantization as Qdrant's collection info reports it, or null. */
export function presentQuantization(config: ScalarQuantizationConfig | undefined): unknown {
  if (!config) return null;
  return {
    scalar: {
      type: config.type,
      ...(config.quantile === undefined ? {} : { quantile: config.quantile }),
      ...(config.alwaysRam === undefined ? {} : { always_ram: config.alwaysRam }),
    },
  };
}
