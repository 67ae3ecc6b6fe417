/** Request and response schemas of the region-change routes. */
import * as yup from 'yup';

/** RegionsUpdateRequest: the desired final set, not a delta. */
export const RegionsUpdateRequest = yup
  .object({
    regions: yup
      .array(yup.string().min(1).max(63).required())
      .min(1)
      .required()
      .meta({ description: 'The desired final set of regions, compared as a set.' }),
  })
  .noUnknown('The body has unknown key(s): ${unknown}')
  .required();

const strings = () => yup.array(yup.string().required()).required();

/** RegionChangeNoOp. */
export const RegionChangeNoOp = yup.object({
  status: yup.string().oneOf(['no_op']).required(),
  scope: yup.string().oneOf(['workspace', 'collection']).required(),
  current_regions: strings(),
  workspace_name: yup.string().optional(),
});

/** RegionChangeAccepted: the operation that carries the change out. */
export const RegionChangeAccepted = yup.object({
  operation_id: yup
    .string()
    .uuid()
    .required()
    .meta({ description: 'Poll GET /api/v1/operations/{operation_id}.' }),
  status: yup
    .string()
    .oneOf(['pending'])
    .required()
    .meta({ description: 'The state of the operation when it was accepted.' }),
  scope: yup.string().oneOf(['workspace', 'collection']).required(),
  workspace_name: yup.string().nullable().defined(),
  from_regions: strings(),
  to_regions: strings(),
  regions_to_add: strings(),
  regions_to_remove: strings(),
});
