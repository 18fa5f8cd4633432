// The playground in chromium (drivers.js says how it is driven): the
// exactness matrix, the scalar fallback, the journeys, offline.
import { engineSuite } from './suite.js';

engineSuite('chromium');
