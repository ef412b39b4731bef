import { PlanVersionEditorScreen } from './PlanEditor';

export default PlanVersionEditorScreen;
