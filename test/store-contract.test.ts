import { storeFactories } from './support/stores';
import { runStoreContract } from './store/contract';

for (const factory of storeFactories()) runStoreContract(factory);
