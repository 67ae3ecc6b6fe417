/** Schemas of the control plane's collection route: moving a vector collection. */
import * as yup from 'yup';

/** Path parameter `{collection_id}`. */
export const CollectionParams = yup.object({
  collection_id: yup.string().min(1).max(200).required().meta({
    description:
      "The collection's id (the id its vector-plane reads carry), or its name: name for a collection outside any workspace, workspace/name (the slash encoded, %2F) for one in a workspace.",
  }),
});

/** CollectionUpdateRequest: the workspace and regions a collection is to have; a key left out is kept. */
export const CollectionUpdateRequest = yup
  .object({
    regions: yup.array(yup.string().min(1).max(63).required()).min(1).optional().meta({
      description:
        "The collection's desired final set of regions, compared as a set. Each must be offered and the set within the plan's scope (422 COLLECTION_REGIONS_NOT_IN_SCOPE; a single-region plan keeps every collection in its one region: 422 STARTER_REGION_CONSISTENCY).",
    }),
    workspace_name: yup.string().min(3).max(63).nullable().optional().meta({
      description:
        'The workspace to move the collection to (404 WORKSPACE_NOT_FOUND for one the account does not have); null moves it out of any workspace. Its name must be free there (409 COLLECTION_NAME_TAKEN).',
    }),
  })
  .noUnknown('The body has unknown key(s): ${unknown}')
  .test(
    'something-to-change',
    'Send regions, workspace_name or both',
    (v) => v === undefined || v.regions !== undefined || v.workspace_name !== undefined,
  )
  .required();
