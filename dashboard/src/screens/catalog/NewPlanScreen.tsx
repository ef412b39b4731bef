import { NewPlanScreen } from './PlanEditor';

export default NewPlanScreen;
