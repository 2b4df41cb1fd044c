import { Route, Switch } from 'wouter';
import { ProjectList } from './ProjectList.js';
import { ProjectPage } from './ProjectPage.js';

// Projects: the list (also the home page), and one project's pages under /projects/<id>/<tab>.
export default function ProjectsArea() {
  return (
    <Switch>
      <Route path="/" component={ProjectList} />
      <Route path="/:projectId/:tab?" component={ProjectPage} />
    </Switch>
  );
}
