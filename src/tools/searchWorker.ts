// The worker thread of longhaul_searchText (see textSearch.ts): searches the files it is given and
// posts the matching lines as it finds them. The extension host terminates it when the search runs
// over its time limit or the user cancels, so no pattern and no file can block the host.
import { parentPort, workerData } from 'node:worker_threads';
import { SearchRequest, searchFiles, WorkerMessage } from './textSearch';

const post = (message: WorkerMessage) => parentPort?.postMessage(message);

searchFiles(workerData as SearchRequest, hits => post({ type: 'hits', hits })).then(
	result => post({ type: 'done', result }),
	error => post({ type: 'error', message: `The search failed: ${(error as Error)?.message ?? error}` }),
);
