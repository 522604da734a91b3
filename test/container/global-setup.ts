// Builds the service image once for the whole container suite, from the repository's Dockerfile, with
// Testcontainers. CATALOG_SEARCH_TEST_IMAGE skips the build and tests an image that already exists instead.
import { fileURLToPath } from 'node:url';
import { GenericContainer } from 'testcontainers';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    image: string;
  }
}

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

export default async function setup(project: TestProject): Promise<void> {
  const prebuilt = process.env.CATALOG_SEARCH_TEST_IMAGE;
  if (prebuilt) {
    project.provide('image', prebuilt);
    return;
  }
  const image = 'catalog-search:test';
  const nodeImage = process.env.NODE_IMAGE ?? 'local/node:standin';
  const started = Date.now();
  try {
    await GenericContainer.fromDockerfile(repoRoot)
      .withBuildArgs({ NODE_IMAGE: nodeImage })
      .build(image, { deleteOnExit: false });
  } catch (error) {
    throw new Error(
      `Building the image failed (${String(error)}). Rerun the build by hand to see its output:\n` +
        `  docker build --build-arg NODE_IMAGE=${nodeImage} -t ${image} .\n` +
        `The base image stand-in comes from scripts/setup-docker.sh.`,
      { cause: error },
    );
  }
  console.log(
    `built ${image} from the Dockerfile (base ${nodeImage}) in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  project.provide('image', image);
}
