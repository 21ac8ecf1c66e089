/**
 * The values the API's enums take. Plain constants, apart from the schemas (schemas.ts builds its
 * JSON schemas with TypeBox at import time): the workbench imports these without shipping TypeBox.
 */
export const API_SUBMISSION_STATUSES = [
  'received',
  'waiting_for_upload',
  'media_processing',
  'needs_review',
  'promoted',
  'rejected',
  'failed',
] as const;
export const API_VISIBILITIES = ['draft', 'team_visible', 'promotion_eligible'] as const;
export const API_MEDIA_TYPES = ['image', 'video'] as const;
export const UPLOAD_PROTOCOLS = ['basic', 'tus'] as const;
