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

/** RegionChangeNoOp. */
export const RegionChangeNoOp = yup.object({
  status: yup.string().oneOf(['no_op']).required(),
  scope: yup.string().oneOf(['workspace']).required(),
  current_regions: yup.array(yup.string().required()).required(),
  workspace_name: yup.string().optional(),
});
