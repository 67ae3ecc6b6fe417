/** Offset paging, the same on every list route: the query fields and the envelope. */
import * as yup from 'yup';

/** The `limit` and `offset` query fields (spread into a list route's query schema). */
export function pageQueryFields() {
  return {
    limit: yup
      .number()
      .integer()
      .min(1)
      .max(100)
      .optional()
      .default(20)
      .meta({ description: 'Page size (1-100).' }),
    offset: yup
      .number()
      .integer()
      .min(0)
      // A skip MongoDB can hold (a 64-bit integer); anything past it finds nothing anyway.
      .max(Number.MAX_SAFE_INTEGER)
      .optional()
      .default(0)
      .meta({ description: 'Items to skip.' }),
  };
}

/** The list envelope `{items, total, limit, offset, next_offset}` of items of the component `item`. */
export function pageEnvelope(item: string) {
  return yup.object({
    items: yup
      .array(yup.mixed().meta({ openapi: { $ref: `#/components/schemas/${item}` } }))
      .required(),
    total: yup.number().integer().required().meta({ description: 'Items matching the filters.' }),
    limit: yup.number().integer().required(),
    offset: yup.number().integer().required(),
    next_offset: yup
      .number()
      .integer()
      .nullable()
      .defined()
      .meta({ description: 'Offset of the next page; null on the last page.' }),
  });
}
