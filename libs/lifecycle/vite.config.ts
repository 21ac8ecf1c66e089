import { defineProject } from '../../tools/vitest.shared.ts';

export default defineProject(import.meta.dirname);
