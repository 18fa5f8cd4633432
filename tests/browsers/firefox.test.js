// The playground in firefox (drivers.js says how it is driven): the
// exactness matrix, the scalar fallback, the journeys, offline.
import { engineSuite } from './suite.js';

engineSuite('firefox');
