import { defineProject } from '../../tools/vitest.shared';

export default defineProject(import.meta.dirname);
