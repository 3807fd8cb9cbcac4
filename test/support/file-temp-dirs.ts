/**
 * A setup file (vitest.config.ts): runs before every test file, in whichever process runs it, so the
 * temp dirs each file made with fileTempDir() are removed after that file's tests.
 */
import { afterAll } from 'vitest';
import { removeFileTempDirs } from './test-env.js';

afterAll(removeFileTempDirs);
