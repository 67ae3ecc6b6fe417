/** Schemas of the operation routes. */
import * as yup from 'yup';
import { OPERATION_STATES } from '../../../operations/model.js';

/** Path parameter `{operation_id}`. */
export const OperationParams = yup.object({
  operation_id: yup.string().uuid().required().meta({ description: 'The operation id.' }),
});

const dateTime = () => yup.string().meta({ openapi: { format: 'date-time' } });
const strings = () => yup.array(yup.string().required()).required();

/** The Operation record of a region change. */
export const OperationRecord = yup.object({
  operation_id: yup.string().uuid().required(),
  kind: yup.string().oneOf(['region_change']).required(),
  scope: yup.string().oneOf(['workspace', 'collection']).required(),
  workspace_name: yup.string().nullable().defined().meta({
    description: "The workspace changed; for a collection's change, the collection's workspace.",
  }),
  collection_name: yup
    .string()
    .optional()
    .meta({ description: "For a collection's change (scope collection): the collection." }),
  to_workspace_name: yup.string().nullable().optional().meta({
    description:
      "For a collection's move to another workspace: the workspace it moves to (null: out of any).",
  }),
  state: yup
    .string()
    .oneOf([...OPERATION_STATES])
    .required()
    .meta({ description: 'pending, running, then succeeded, failed or rolled_back.' }),
  from_regions: strings(),
  to_regions: strings(),
  regions_to_add: strings(),
  regions_to_remove: strings(),
  progress: yup
    .object({
      agents: yup
        .array(
          yup.object({
            agent_id: yup.string().uuid().required(),
            name: yup.string().required(),
            state: yup
              .string()
              .required()
              .meta({ description: 'pending, placing, ready, done, gone, rolled_back.' }),
            ready_regions: strings(),
          }),
        )
        .required(),
      collections: yup
        .array(
          yup.object({
            name: yup.string().required(),
            state: yup
              .string()
              .required()
              .meta({ description: 'pending, copying, copied, done, rolled_back.' }),
            points_copied: yup.number().integer().required(),
          }),
        )
        .required(),
    })
    .required(),
  error: yup.string().nullable().defined(),
  created_at: dateTime().required(),
  updated_at: dateTime().required(),
  started_at: dateTime().nullable().defined(),
  finished_at: dateTime().nullable().defined(),
});
